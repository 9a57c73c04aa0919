target datalayout = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"

%dx.types.Handle = type { i8* }
%dx.types.ResBind = type { i32, i32, i32, i8 }
%dx.types.ResourceProperties = type { i32, i32 }
%dx.types.ResRet.i32 = type { i32, i32, i32, i32, i32 }
%dx.types.fouri32 = type { i32, i32, i32, i32 }
%"class.StructuredBuffer<unsigned int>" = type { i32 }

define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind zeroinitializer, i32 0, i1 false)
  %2 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 undef)
  %3 = call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 1, i32 undef)
  %4 = alloca [4 x i32], align 4
  %5 = fptosi float %2 to i32
  %6 = fptosi float %3 to i32
  %7 = shl i32 %6, 1
  %8 = add nsw i32 %7, %5
  %9 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 12, i32 4 })
  %10 = call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32 139, %dx.types.Handle %9, i32 %8, i32 0, i8 1, i32 4)
  %11 = extractvalue %dx.types.ResRet.i32 %10, 0
  %12 = call i32 @dx.op.waveAllOp(i32 135, i1 true)
  %13 = and i32 %11, 1
  %14 = icmp eq i32 %13, 0
  br i1 %14, label %15, label %16

15:                                               ; preds = %0
  call void @dx.op.discard(i32 82, i1 true)
  br label %16

16:                                               ; preds = %15, %0
  %17 = call i32 @dx.op.waveAllOp(i32 135, i1 true)
  %18 = and i32 %11, 2
  %19 = icmp ne i32 %18, 0
  %20 = call i1 @dx.op.waveAnyTrue(i32 113, i1 %19)
  %21 = zext i1 %20 to i32
  %22 = call i1 @dx.op.waveAllTrue(i32 114, i1 %19)
  %23 = zext i1 %22 to i32
  %24 = call i1 @dx.op.waveIsFirstLane(i32 110)
  %25 = zext i1 %24 to i32
  %26 = call i32 @dx.op.waveReadLaneFirst.i32(i32 118, i32 %8)
  %27 = call %dx.types.fouri32 @dx.op.waveActiveBallot(i32 116, i1 true)
  %28 = extractvalue %dx.types.fouri32 %27, 0
  %29 = extractvalue %dx.types.fouri32 %27, 1
  %30 = extractvalue %dx.types.fouri32 %27, 2
  %31 = extractvalue %dx.types.fouri32 %27, 3
  %32 = bitcast [4 x i32]* %4 to i8*
  call void @llvm.lifetime.start.p0i8(i64 16, i8* %32) #1
  %33 = getelementptr inbounds [4 x i32], [4 x i32]* %4, i32 0, i32 0
  store i32 %28, i32* %33, align 4
  %34 = getelementptr inbounds [4 x i32], [4 x i32]* %4, i32 0, i32 1
  store i32 %29, i32* %34, align 4
  %35 = getelementptr inbounds [4 x i32], [4 x i32]* %4, i32 0, i32 2
  store i32 %30, i32* %35, align 4
  %36 = getelementptr inbounds [4 x i32], [4 x i32]* %4, i32 0, i32 3
  store i32 %31, i32* %36, align 4
  %37 = call i32 @dx.op.waveGetLaneIndex(i32 111)
  %38 = lshr i32 %37, 5
  %39 = getelementptr [4 x i32], [4 x i32]* %4, i32 0, i32 %38
  %40 = load i32, i32* %39, align 4, !tbaa !18
  %41 = and i32 %37, 28
  %42 = lshr i32 %40, %41
  call void @llvm.lifetime.end.p0i8(i64 16, i8* %32) #1
  %43 = call i32 @dx.op.waveActiveOp.i32(i32 119, i32 %8, i8 0, i8 0)
  %44 = call i32 @dx.op.wavePrefixOp(i32 136, i1 true)
  %45 = uitofp i1 %19 to float
  %46 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %45, i32 0)
  %47 = fcmp fast une float %46, 0.000000e+00
  br i1 %47, label %57, label %48

48:                                               ; preds = %16
  %49 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %45, i32 1)
  %50 = fcmp fast une float %49, 0.000000e+00
  br i1 %50, label %57, label %51

51:                                               ; preds = %48
  %52 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %45, i32 2)
  %53 = fcmp fast une float %52, 0.000000e+00
  br i1 %53, label %57, label %54

54:                                               ; preds = %51
  %55 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %45, i32 3)
  %56 = fcmp fast une float %55, 0.000000e+00
  br label %57

57:                                               ; preds = %54, %51, %48, %16
  %58 = phi i1 [ true, %51 ], [ true, %48 ], [ true, %16 ], [ %56, %54 ]
  %59 = zext i1 %58 to i32
  %60 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %45, i32 0)
  %61 = fcmp fast une float %60, 0.000000e+00
  br i1 %61, label %62, label %71

62:                                               ; preds = %57
  %63 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %45, i32 1)
  %64 = fcmp fast une float %63, 0.000000e+00
  br i1 %64, label %65, label %71

65:                                               ; preds = %62
  %66 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %45, i32 2)
  %67 = fcmp fast une float %66, 0.000000e+00
  br i1 %67, label %68, label %71

68:                                               ; preds = %65
  %69 = call float @dx.op.quadReadLaneAt.f32(i32 122, float %45, i32 3)
  %70 = fcmp fast une float %69, 0.000000e+00
  br label %71

71:                                               ; preds = %68, %65, %62, %57
  %72 = phi i1 [ false, %65 ], [ false, %62 ], [ false, %57 ], [ %70, %68 ]
  %73 = zext i1 %72 to i32
  %74 = shl i32 %17, 3
  %75 = or i32 %74, %12
  %76 = shl nuw nsw i32 %59, 6
  %77 = shl nuw nsw i32 %73, 7
  %78 = shl nuw nsw i32 %21, 8
  %79 = shl nuw nsw i32 %23, 9
  %80 = shl nuw nsw i32 %25, 10
  %81 = shl i32 %26, 11
  %82 = shl i32 %42, 13
  %83 = and i32 %82, 122880
  %84 = shl i32 %43, 17
  %85 = shl i32 %44, 21
  %86 = or i32 %75, %78
  %87 = or i32 %86, %79
  %88 = or i32 %87, %80
  %89 = or i32 %88, %81
  %90 = or i32 %89, %83
  %91 = or i32 %90, %84
  %92 = or i32 %91, %85
  %93 = or i32 %92, %76
  %94 = or i32 %93, %77
  call void @dx.op.storeOutput.i32(i32 5, i32 0, i32 0, i8 0, i32 %94)
  ret void
}

; Function Attrs: nounwind readnone
declare float @dx.op.loadInput.f32(i32, i32, i32, i8, i32) #0

; Function Attrs: nounwind
declare void @dx.op.storeOutput.i32(i32, i32, i32, i8, i32) #1

; Function Attrs: nounwind
declare void @dx.op.discard(i32, i1) #1

; Function Attrs: nounwind readonly
declare %dx.types.ResRet.i32 @dx.op.rawBufferLoad.i32(i32, %dx.types.Handle, i32, i32, i8, i32) #2

; Function Attrs: nounwind
declare i32 @dx.op.wavePrefixOp(i32, i1) #1

; Function Attrs: nounwind
declare i32 @dx.op.waveAllOp(i32, i1) #1

; Function Attrs: nounwind
declare i1 @dx.op.waveAllTrue(i32, i1) #1

; Function Attrs: nounwind
declare i1 @dx.op.waveAnyTrue(i32, i1) #1

; Function Attrs: nounwind
declare i1 @dx.op.waveIsFirstLane(i32) #1

; Function Attrs: nounwind
declare i32 @dx.op.waveActiveOp.i32(i32, i32, i8, i8) #1

; Function Attrs: nounwind
declare i32 @dx.op.waveReadLaneFirst.i32(i32, i32) #1

; Function Attrs: nounwind
declare %dx.types.fouri32 @dx.op.waveActiveBallot(i32, i1) #1

; Function Attrs: nounwind readnone
declare i32 @dx.op.waveGetLaneIndex(i32) #0

; Function Attrs: nounwind
declare float @dx.op.quadReadLaneAt.f32(i32, float, i32) #1

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.annotateHandle(i32, %dx.types.Handle, %dx.types.ResourceProperties) #0

; Function Attrs: nounwind readnone
declare %dx.types.Handle @dx.op.createHandleFromBinding(i32, %dx.types.ResBind, i32, i1) #0

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #3

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #3

attributes #0 = { nounwind readnone }
attributes #1 = { nounwind }
attributes #2 = { nounwind readonly }
attributes #3 = { argmemonly nofree nosync nounwind willreturn }

!llvm.ident = !{!0}
!dx.version = !{!1}
!dx.valver = !{!1}
!dx.shaderModel = !{!2}
!dx.resources = !{!3}
!dx.viewIdState = !{!7}
!dx.entryPoints = !{!8}

!0 = !{!"dxcoob 1.7.2308.7 (69e54e290)"}
!1 = !{i32 1, i32 7}
!2 = !{!"ps", i32 6, i32 7}
!3 = !{!4, null, null, null}
!4 = !{!5}
!5 = !{i32 0, %"class.StructuredBuffer<unsigned int>"* undef, !"", i32 0, i32 0, i32 1, i32 12, i32 0, !6}
!6 = !{i32 1, i32 4}
!7 = !{[6 x i32] [i32 4, i32 1, i32 1, i32 1, i32 0, i32 0]}
!8 = !{void ()* @main, !"main", !9, !3, !17}
!9 = !{!10, !14, null}
!10 = !{!11}
!11 = !{i32 0, !"SV_Position", i8 9, i8 3, !12, i8 4, i32 1, i8 4, i32 0, i8 0, !13}
!12 = !{i32 0}
!13 = !{i32 3, i32 3}
!14 = !{!15}
!15 = !{i32 0, !"SV_Target", i8 5, i8 16, !12, i8 0, i32 1, i8 1, i32 0, i8 0, !16}
!16 = !{i32 3, i32 1}
!17 = !{i32 0, i64 524304}
!18 = !{!19, !19, i64 0}
!19 = !{!"int", !20, i64 0}
!20 = !{!"omnipotent char", !21, i64 0}
!21 = !{!"Simple C/C++ TBAA"}
